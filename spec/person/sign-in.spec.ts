import express from 'express';
import request from 'supertest';
import { consentHeaders, signedIn } from '../../lib/person/sign-in';
import { ConsentRequired } from '../../lib/trellis/oauth/consent';
import { ToolCatalog } from '../../lib/trellis/catalog';
import { Hierarchy } from '../../lib/trellis/hierarchy';
import type { ActiveBinding } from '../../lib/loop/context';
import type { Trellis } from '../../lib/types';
import { memoryLogger } from '../helpers/memory-logger';

const consent = new ConsentRequired('notes', 'https://auth.example.com/authorize?state=s');

function bindingOn(trellis: Trellis): ActiveBinding {
  return {
    name: 'notes',
    trellis,
    catalog: new ToolCatalog(trellis, new Hierarchy(['whoami']), 'notes', memoryLogger().logger),
    toolTimeoutSec: 30,
    requireApproval: 'never',
    toolSearch: false,
  };
}

const tools = async () => [{ name: 'whoami', inputSchema: { type: 'object' as const } }];
const never = async () => ({ content: [] });
const signal = new AbortController().signal;

describe('signedIn', () => {
  it('leaves a binding whose Trellis has no users as it is, and one for a request without a user', async () => {
    const plain = bindingOn({ listTools: tools, callTool: never });
    expect(await signedIn(plain, {} as never, signal)).toEqual({ binding: plain });
    const shared: Trellis = { listTools: tools, callTool: never, forRequest: () => shared };
    expect(await signedIn(bindingOn(shared), {} as never, signal)).toEqual({
      binding: expect.objectContaining({ trellis: shared }),
    });
  });

  it('gives the user’s own Trellis and catalog, or the consent its listing asked for', async () => {
    const own: Trellis = { listTools: tools, callTool: never };
    const binding = bindingOn({ listTools: tools, callTool: never, forRequest: () => own });
    const access = await signedIn(binding, {} as never, signal);
    expect(access).toEqual({
      binding: expect.objectContaining({ trellis: own, catalog: binding.catalog.forTrellis(own) }),
    });
    const asking = bindingOn({
      listTools: tools,
      callTool: never,
      forRequest: () => ({ listTools: () => Promise.reject(consent), callTool: never }),
    });
    expect(await signedIn(asking, {} as never, signal)).toEqual({ consent });
  });
});

describe('consentHeaders', () => {
  it('sets the stop and the link on an answer not yet sent, and gives the text', async () => {
    const app = express().get('/', (_req, res) => void res.send(consentHeaders(res, consent)));
    const { headers, text } = await request(app).get('/');
    expect(headers['x-agent-loop-stop']).toBe('authorization');
    expect(headers['x-agent-loop-authorize']).toBe(consent.url);
    expect(text).toBe(
      '[agent-loop] notes needs your permission: open https://auth.example.com/authorize?state=s, then send your message again.',
    );
  });
});
