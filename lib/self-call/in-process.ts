import http from 'node:http';
import type { Socket } from 'node:net';
import type { FrontDoor } from './front-door';
import { connect } from './in-process-connection';

/** A keep-alive agent whose connections lead into one server in this process. */
class InProcessAgent extends http.Agent {
  constructor(private readonly front: FrontDoor) {
    super({ keepAlive: true });
  }

  override createConnection(): Socket {
    return connect(this.front, this.crowded) as unknown as Socket;
  }

  /** more than one of this agent's connections carries a request (the agent's sockets in use, by host) */
  private readonly crowded = (): boolean => {
    let inUse = 0;
    for (const name in this.sockets) if ((inUse += this.sockets[name]?.length ?? 0) > 1) return true;
    return false;
  };
}

/** One in-process agent per front door, destroyed when its server closes or by `destroy()`. */
export class InProcessAgents {
  private readonly byServer = new Map<http.Server, { agent: InProcessAgent; onClose: () => void }>();

  agentFor(front: FrontDoor): http.Agent {
    const known = this.byServer.get(front.server);
    if (known) return known.agent;
    const agent = new InProcessAgent(front);
    const onClose = () => this.forget(front.server);
    this.byServer.set(front.server, { agent, onClose });
    front.server.once('close', onClose);
    return agent;
  }

  private forget(server: http.Server): void {
    const known = this.byServer.get(server);
    if (!known) return;
    this.byServer.delete(server);
    server.removeListener('close', known.onClose);
    known.agent.destroy();
  }

  destroy(): void {
    for (const server of [...this.byServer.keys()]) this.forget(server);
  }
}
