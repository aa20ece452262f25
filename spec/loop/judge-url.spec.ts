import { judgeUrlOf } from '../../lib/loop/judge-url';
import type { Wire } from '../../lib/loop/wire';
import { JUDGE_WIRE, WIRES } from '../../lib/wire/wires';

const wire = (name: string) => WIRES.find((each) => each.name === name) as Wire;

describe("judgeUrlOf: the judge's calls go to its wire's path beside the client's", () => {
  it("keeps the client's URL when the client speaks the judge's wire", () => {
    const url = 'http://127.0.0.1:3000/api/v1/chat/completions';
    expect(judgeUrlOf(url, wire('chat'), JUDGE_WIRE)).toBe(url);
  });

  it("swaps the wire's part of the path for the judge's, behind the app's prefix", () => {
    expect(judgeUrlOf('http://127.0.0.1:3000/api/v1/messages', wire('messages'), JUDGE_WIRE)).toBe(
      'http://127.0.0.1:3000/api/v1/chat/completions',
    );
    expect(judgeUrlOf('http://127.0.0.1:3000/v1/responses', wire('responses'), JUDGE_WIRE)).toBe(
      'http://127.0.0.1:3000/v1/chat/completions',
    );
  });

  it("drops Gemini's stream form: the judge's call is a JSON one", () => {
    const url = 'http://127.0.0.1:3000/proxy/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse';
    const judged = new URL(judgeUrlOf(url, wire('gemini'), JUDGE_WIRE));
    expect(judged.pathname).toMatch(/^\/proxy\/.*\/chat\/completions$/);
    expect(judged.search).toBe('');
  });
});
