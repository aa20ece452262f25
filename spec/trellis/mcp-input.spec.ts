import { callWithInput, INPUT_CAPABILITIES } from '../../lib/trellis/mcp-input';
import type { InputAnswers } from '../../lib/types';

const ok = { content: [{ type: 'text', text: 'done' }] };
const rootsAsked = { resultType: 'input_required', inputRequests: { r: { method: 'roots/list' } }, requestState: 'st' };

describe('callWithInput: a tools/call that may answer input_required (MCP 2026-07-28)', () => {
  it('declares elicitation (form and url) and roots', () => {
    expect(INPUT_CAPABILITIES).toEqual({ elicitation: { form: {}, url: {} }, roots: {} });
  });

  it('answers roots/list from the roots and calls again at once, the state echoed', async () => {
    const sent: (InputAnswers | undefined)[] = [];
    const result = await callWithInput(
      async (answers) => (sent.push(answers), sent.length === 1 ? rootsAsked : ok),
      undefined,
      [{ uri: 'file:///srv', name: 'srv' }],
    );
    expect(result).toEqual(ok);
    expect(sent).toEqual([
      undefined,
      { inputResponses: { r: { roots: [{ uri: 'file:///srv', name: 'srv' }] } }, requestState: 'st' },
    ]);
  });

  it("hands the person's questions up, with the roots answered beside them", async () => {
    const asked = {
      resultType: 'input_required',
      inputRequests: {
        r: { method: 'roots/list' },
        q: { method: 'elicitation/create', params: { message: 'm' } },
        bad: 3,
      },
    };
    expect(await callWithInput(async () => asked, undefined, [])).toEqual({
      content: [],
      inputRequired: {
        inputRequests: { q: { method: 'elicitation/create', params: { message: 'm' } } },
        answered: { r: { roots: [] } },
      },
    });
  });

  it('gives up with a tool error on a server that only ever asks for roots', async () => {
    const result = await callWithInput(async () => rootsAsked, { inputResponses: {} }, []);
    expect(result).toEqual({
      content: [{ type: 'text', text: 'the server asked for its roots 3 times' }],
      isError: true,
    });
  });
});
