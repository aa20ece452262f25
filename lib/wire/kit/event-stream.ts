import type { Response } from 'express';
import { onAbort } from '../../shared/signals';
import type { ToolNote } from '../../loop/reply';
import { KeepAlive } from './keep-alive';

/** Starts a server-sent event stream: its headers go out at once, so proxies pass each event on as it comes. */
export function openEventStream(res: Response): void {
  res.status(200);
  res.setHeader('content-type', 'text/event-stream; charset=utf-8');
  res.setHeader('cache-control', 'no-cache');
  res.setHeader('x-accel-buffering', 'no');
  res.flushHeaders();
}

/** Resolves once the client drained its full socket, went away, or the loop ended (`signal`). */
export function drained(res: Response, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    let unwatch = (): void => undefined;
    const done = () => {
      res.off('drain', done).off('close', done);
      unwatch();
      resolve();
    };
    res.once('drain', done).once('close', done);
    unwatch = onAbort(signal, done);
  });
}

/**
 * One event stream to the client, whatever its wire: it opens with its first write (so a loop that fails before
 * can still fall through), sends `beat` when it goes quiet while tools run, and takes no write once ended or once
 * the client went away. `onOpen` writes what the wire's stream starts with.
 */
export class EventStream {
  private started = false;
  private finished = false;
  private readonly keepAlive: KeepAlive;

  constructor(
    private readonly res: Response,
    keepAliveSec: number,
    beat: string,
    private readonly onOpen: () => void = () => undefined,
  ) {
    this.keepAlive = new KeepAlive(keepAliveSec, () => this.write(beat));
  }

  get opened(): boolean {
    return this.started;
  }

  get ended(): boolean {
    return this.finished;
  }

  /** false when the client's socket is full */
  write(text: string): boolean {
    if (this.finished || this.res.destroyed) return true;
    this.open();
    const room = this.res.write(text);
    this.keepAlive.wrote();
    return room;
  }

  open(): void {
    if (this.started || this.res.destroyed) return;
    this.started = true;
    openEventStream(this.res);
    this.onOpen();
  }

  /** Tools run and the stream may go quiet: from now on a quiet stream gets a beat so proxies keep it open. */
  toolsRunning(): void {
    this.open();
    this.keepAlive.start();
  }

  /** A tool's progress tells the client the loop is alive: a beat, at most one a second. */
  toolProgress(): void {
    this.keepAlive.progress();
  }

  /** Resolves once the client drained its full socket, went away, or the loop ended (`signal`). */
  drained(signal: AbortSignal): Promise<void> {
    return drained(this.res, signal);
  }

  /** An SSE comment: every client's parser skips it; one line, so that no server text can frame an event. */
  comment(text: string): void {
    this.write(`: ${text.replace(/[\r\n]+/g, ' ')}\n\n`);
  }

  quiet(): void {
    this.keepAlive.stop();
  }

  end(): void {
    this.finished = true;
    this.keepAlive.stop();
    this.res.end();
  }
}

/** What every wire's stream writer does with its event stream, whatever it writes on it. */
export abstract class EventStreamWriter {
  protected abstract readonly stream: EventStream;

  get committed(): boolean {
    return this.stream.opened;
  }

  /** Tools run and the stream may go quiet: from now on a quiet stream gets the wire's beat so proxies keep it open. */
  toolsRunning(): void {
    this.stream.toolsRunning();
  }

  /** A tool's progress tells the client the loop is alive: a beat, at most one a second. */
  toolProgress(): void {
    this.stream.toolProgress();
  }

  /**
   * A tool running as an MCP task changed its status: `: task <tool> <id> <status>[: <status message>]`; a program
   * logged a line: `: log <tool> <line>`.
   */
  toolNote(tool: string, note: ToolNote): void {
    if ('log' in note) return this.stream.comment(`log ${tool} ${note.log}`);
    const { task } = note;
    const message = task.statusMessage === undefined ? '' : `: ${task.statusMessage}`;
    this.stream.comment(`task ${tool} ${task.id} ${task.status}${message}`);
  }

  /** Waits, when a write found the client's socket full (no `room`), until it drained or `signal` ended the loop. */
  protected keptUp(room: boolean, signal: AbortSignal): Promise<void> | void {
    if (!room) return this.stream.drained(signal);
  }
}
