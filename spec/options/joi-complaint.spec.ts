import Joi from 'joi';
import { deepestOf, flattened, knownKeys, pathOfValue, type Described } from '../../lib/options/joi-complaint';

const mcp = Joi.alternatives().try(
  Joi.object({ url: Joi.string().uri().required(), auth: Joi.object({ redirectUrl: Joi.string().required() }) }),
  Joi.object({ command: Joi.string().required() }),
);
const schema = Joi.object({
  trellis: Joi.object({ mcp }),
  bindings: Joi.array()
    .items(Joi.object({ name: Joi.string() }))
    .unique('name'),
});

const complaintOf = (value: unknown) => schema.validate(value, { abortEarly: true, convert: false }).error!.details[0];

describe("where joi's complaint lies", () => {
  it('knows the keys at a path in every alternative of the unions on the way', () => {
    expect(knownKeys(schema.describe() as Described, ['trellis', 'mcp'])).toEqual(['url', 'auth', 'command']);
  });

  it("flattens a union's complaint into those of its alternatives", () => {
    const union = complaintOf({ trellis: { mcp: { url: 'no scheme' } } });
    expect(union.type).toBe('alternatives.match');
    expect(flattened(union).map((item) => item.type)).toEqual(['string.uri', 'any.required']);
  });

  it('takes the deepest complaint inside the union the value had the shape of', () => {
    const deepest = deepestOf(complaintOf({ trellis: { mcp: { url: 'no scheme' } } }));
    expect([deepest.type, deepest.path]).toEqual(['string.uri', ['trellis', 'mcp', 'url']]);
    const missing = deepestOf(complaintOf({ trellis: { mcp: { url: 'http://x/mcp', auth: {} } } }));
    expect([missing.type, missing.path]).toEqual(['any.required', ['trellis', 'mcp', 'auth', 'redirectUrl']]);
  });

  it('points at the repeated key of a list unique by it', () => {
    expect(pathOfValue(complaintOf({ bindings: [{ name: 'notes' }, { name: 'notes' }] }))).toEqual([
      'bindings',
      1,
      'name',
    ]);
  });
});
