import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import axios from 'axios';
import type { Request } from 'express';
import { selfCallAdapter } from '../../lib/self-call/axios-adapter';
import { frontDoorOf } from '../../lib/self-call/front-door';
import { InProcessAgents } from '../../lib/self-call/in-process';

/** An axios client on the self-call's adapter: a call goes through the agent it names (`httpAgent`). */
const selfCallClient = () =>
  axios.create({
    adapter: selfCallAdapter({ http: new http.Agent(), https: new https.Agent() }),
    validateStatus: null,
    transformRequest: [],
    transformResponse: [],
  });

/** A server whose first request (from a real socket) is the front door the in-process calls go to. */
async function openFrontDoor(agents: InProcessAgents, listener: http.RequestListener) {
  let front: ReturnType<typeof frontDoorOf>;
  const server = http.createServer((req, res) => {
    if (req.url === '/find') {
      front = frontDoorOf(req as Request);
      return res.end();
    }
    listener(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => http.get(`http://127.0.0.1:${port}/find`, { agent: false }, resolve));
  const agent = agents.agentFor(front!);
  return {
    url: `http://127.0.0.1:${port}/v1/chat/completions`,
    agent,
    server,
    front: front!,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/**
 * For one describe block: a client on the self-call's adapter, and `frontDoor(listener)`, a server whose in-process
 * agent comes from agents destroyed after the block.
 */
export function inProcessDoors() {
  const agents = new InProcessAgents();
  afterAll(() => agents.destroy());
  return { client: selfCallClient(), frontDoor: (listener: http.RequestListener) => openFrontDoor(agents, listener) };
}
