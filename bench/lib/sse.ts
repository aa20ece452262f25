/** Yields the `data:` payloads of a server-sent event stream, as they arrive. */
export async function* sseData(chunks: AsyncIterable<Uint8Array | string>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of chunks) {
    buffer += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    // Gemini's streams end their lines with CRLF
    if (buffer.includes('\r\n')) buffer = buffer.replace(/\r\n/g, '\n');
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      for (const line of event.split('\n')) if (line.startsWith('data:')) yield line.slice(5).trimStart();
    }
  }
}
