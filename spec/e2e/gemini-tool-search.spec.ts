import type { GenerateContentResponse } from '@google/genai' with { 'resolution-mode': 'import' };
import type { GeminiStep } from '../../fixtures/gemini-server';
import { geminiRig, type GeminiGateway } from './gemini-gateway';
import { catalogTrellis, expectAppendedOnly, NOT_LOADED, QUERY } from './tool-search-gateway';

const model = 'gemini-2.5-flash';
const contents = 'open a pull request from my branch';
/** turn 1: search, and call a tool not loaded yet; turn 2: the tool found; turn 3: the answer */
const steps: GeminiStep[] = [
  { calls: [{ name: 'tool_search', args: { query: QUERY } }, { name: 'merge_pull_request' }] },
  { calls: [{ name: 'create_pull_request', args: { owner: 'o', repo: 'r', title: 't', head: 'f', base: 'main' } }] },
  { text: 'The pull request is open.' },
];
const declared = (tools: unknown) =>
  ((tools ?? []) as { functionDeclarations?: { name: string }[] }[]).flatMap((tool) =>
    (tool.functionDeclarations ?? []).map((fn) => fn.name),
  );
const textOf = (response: GenerateContentResponse) =>
  (response.candidates?.[0]?.content?.parts ?? []).map((part) => part.text ?? '').join('');

describe.each([false, true])('tool search on Gemini, served by the loop (@google/genai, stream: %s)', (stream) => {
  const rig = geminiRig();
  const calls: string[] = [];
  beforeEach(() => calls.splice(0));

  async function ask(gw: GeminiGateway): Promise<string> {
    if (!stream) return textOf(await gw.genai.models.generateContent({ model, contents }));
    let text = '';
    for await (const chunk of await gw.genai.models.generateContentStream({ model, contents })) text += textOf(chunk);
    return text;
  }

  it('offers tool_search alone, answers it with { name, description }, loads what it found and runs it; a tool not loaded runs nothing', async () => {
    const gw = await rig.gateway(steps, {
      trellis: catalogTrellis(calls),
      bindings: [{ name: 'catalog', match: { model: '*' }, hierarchy: 'from-trellis' }],
    });
    expect(await ask(gw)).toContain('The pull request is open.');
    const [first, second, third] = rig.upstream.requests.map((request) => request.body);
    expect(rig.upstream.requests.map((request) => request.refused)).toEqual([undefined, undefined, undefined]);
    expect(declared(first.tools)).toEqual(['tool_search']);
    const [searched, early] = rig.lastParts(1) as { functionResponse?: { response?: { output?: unknown } } }[];
    const found = JSON.parse(String(searched.functionResponse?.response?.output)) as { name: string }[];
    expect(found.length).toBeLessThanOrEqual(5);
    expect(found[0]).toEqual({
      name: 'create_pull_request',
      description: 'Create a new pull request in a GitHub repository',
    });
    expect(early).toEqual({ functionResponse: { name: 'merge_pull_request', response: { error: NOT_LOADED } } });
    expect(declared(second.tools)).toEqual(['tool_search', ...found.map((tool) => tool.name)]);
    expect(rig.lastParts(2)).toEqual([
      { functionResponse: { name: 'create_pull_request', response: { output: 'ran create_pull_request' } } },
    ]);
    expectAppendedOnly([first.tools, second.tools, third.tools]);
    expect(calls).toEqual(['create_pull_request']);
  });
});
