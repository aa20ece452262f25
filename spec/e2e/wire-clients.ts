import Anthropic from '@anthropic-ai/sdk';
import type * as GenAI from '@google/genai' with { 'resolution-mode': 'import' };
import type { Listening } from '../helpers/listen';

// The SDK's types are ES module ones; its CommonJS build (the `require` condition) is what runs here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { GoogleGenAI } = require('@google/genai') as typeof GenAI;

export type Wire = 'chat' | 'responses' | 'messages' | 'gemini';

export const GEMINI = 'gemini-2.5-flash';

/** The answer's text to `content` (the user's words) as each wire's official client reads it, JSON or streamed. */
export async function answerText(gateway: Listening, wire: Wire, stream: boolean, content: string): Promise<string> {
  const openai = gateway.client;
  if (wire === 'chat') {
    const ask = { model: 'agent-1', messages: [{ role: 'user' as const, content }] };
    const answer = stream
      ? await openai.chat.completions.stream(ask).finalChatCompletion()
      : await openai.chat.completions.create(ask);
    return String(answer.choices[0].message.content);
  }
  if (wire === 'responses') {
    if (!stream) return (await openai.responses.create({ model: 'agent-1', input: content })).output_text;
    let text = '';
    for await (const event of await openai.responses.create({ model: 'agent-1', input: content, stream: true }))
      if (event.type === 'response.output_text.delta') text += event.delta;
    return text;
  }
  if (wire === 'messages') {
    const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: 'client-key', maxRetries: 0 });
    const ask = { model: 'claude-test', max_tokens: 256, messages: [{ role: 'user' as const, content }] };
    const message = stream ? await anthropic.messages.stream(ask).finalMessage() : await anthropic.messages.create(ask);
    return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
  }
  // jest's sandbox hides Node's own fetch dispatcher from the SDK: it gets the sandbox's fetch to call with
  const genai = new GoogleGenAI({
    apiKey: 'client-key',
    httpOptions: { baseUrl: gateway.url, fetch: (input, init) => fetch(input, init) },
  });
  if (!stream) return (await genai.models.generateContent({ model: GEMINI, contents: content })).text ?? '';
  let text = '';
  for await (const chunk of await genai.models.generateContentStream({ model: GEMINI, contents: content }))
    text += chunk.text ?? '';
  return text;
}
