import { frontDoorAt } from '../../lib/loop/front-door';
import { routePattern } from '../../lib/shared/route-pattern';

describe("frontDoorAt: where a path's front door begins, for a wire", () => {
  it('finds a wire by the end of the path, behind any prefix the app mounts it under', () => {
    const chat = { routes: [routePattern('/v1/chat/completions')] };
    expect(frontDoorAt(chat, '/v1/chat/completions')).toBe(0);
    expect(frontDoorAt(chat, '/api/v1/chat/completions')).toBe(4);
    expect(frontDoorAt(chat, '/v1/responses')).toBe(-1);
  });

  it('finds a wire by any of its route patterns (the model and a `:` in the path)', () => {
    const gemini = {
      routes: [
        routePattern('/v1beta/models/{model}:generateContent'),
        routePattern('/v1beta/models/{model}:streamGenerateContent'),
      ],
    };
    expect(frontDoorAt(gemini, '/proxy/v1beta/models/gemini-2.5-flash:generateContent')).toBe(6);
    expect(frontDoorAt(gemini, '/proxy/v1beta/models/gemini-2.5-flash:streamGenerateContent')).toBe(6);
    expect(frontDoorAt(gemini, '/v1beta/models')).toBe(-1);
  });
});
