import { startModelServer, byTurn, type ModelServer } from '../../fixtures/model-server';
import { startOAuthMcpServer, type OAuthMcpServer } from '../../fixtures/oauth-mcp-server';
import { ALICE, chat, consent, lastToolText, signIn, startGateway, type Gateway } from './oauth-gateway';

/** whoami, then admin_note (which needs a wider scope: the server asks for sign-in), then whoami again */
const STEP_UP =
  "const me = await tools.whoami({});\nlet note;\ntry { note = await tools.admin_note({}); } catch (error) { note = error.message; }\nconsole.log('went on');\nawait tools.whoami({});\nreturn { me, note };";

describe('code mode: a nested call whose server needs the person to sign in', () => {
  let model: ModelServer;
  let mcp: OAuthMcpServer;
  let gateway: Gateway;
  beforeEach(async () => {
    model = await startModelServer();
    mcp = await startOAuthMcpServer();
    gateway = await startGateway(
      model,
      mcp,
      {},
      {
        bindings: [
          {
            name: 'notes',
            match: { model: 'agent-*' },
            hierarchy: ['whoami', 'admin_note'],
            codeMode: { timeoutSec: 60 },
          },
        ],
      },
    );
  });
  afterEach(async () => {
    await gateway.close();
    await mcp.close();
    await model.close();
  });

  it('stops the program at that call and answers with the consent, as for a direct call; after sign-in the next message runs the program again', async () => {
    await signIn(gateway, ALICE, 'alice');
    const program = byTurn([
      { toolCalls: [{ id: 'c', name: 'run_code', arguments: { code: STEP_UP } }] },
      { content: 'done' },
    ]);
    model.setScript(program);
    const before = model.requests.length;
    const stepUp = await chat(gateway, ALICE);
    expect(stepUp.headers.get('x-agent-loop-stop')).toBe('authorization');
    // whoami and run_code ran; the program stopped at admin_note (no second whoami) and the model read nothing of it
    expect(stepUp.headers.get('x-agent-loop-tool-calls')).toBe('2');
    expect(model.requests.length - before).toBe(1);
    const url = stepUp.headers.get('x-agent-loop-authorize')!;
    expect(stepUp.body.choices[0].message.content).toBe(
      `[agent-loop] ${mcp.url} needs your permission: open ${url}, then send your message again.`,
    );

    await consent(url, 'alice');
    model.setScript(program);
    const again = await chat(gateway, ALICE);
    expect(again.headers.get('x-agent-loop-stop')).toBe('final');
    expect(lastToolText(model)).toBe('{"return":{"me":"you are alice","note":"noted for alice"},"log":["went on"]}');
  });
});
