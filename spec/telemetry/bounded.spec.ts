import { boundedAttribute, MAX_ATTRIBUTE, MAX_NAME_PART, namePart } from '../../lib/telemetry/bounded';

describe('namePart', () => {
  it('keeps a plain model or tool name as it is', () => {
    expect(namePart('gpt-4o-mini')).toBe('gpt-4o-mini');
    expect(namePart('openai/gpt-4.1:free@eu+beta')).toBe('openai/gpt-4.1:free@eu+beta');
  });

  it('turns every unusual character into _', () => {
    expect(namePart('notes read\n{"x":1}')).toBe('notes_read___x_:1_');
    expect(namePart('modèle')).toBe('mod_le');
  });

  it(`cuts a name to ${MAX_NAME_PART} characters`, () => {
    expect(namePart('m'.repeat(1000))).toBe('m'.repeat(MAX_NAME_PART));
  });
});

describe('boundedAttribute', () => {
  it(`cuts a string longer than ${MAX_ATTRIBUTE} characters and keeps shorter ones whole`, () => {
    expect(boundedAttribute('x'.repeat(MAX_ATTRIBUTE + 1))).toBe('x'.repeat(MAX_ATTRIBUTE));
    expect(boundedAttribute('x'.repeat(MAX_ATTRIBUTE))).toBe('x'.repeat(MAX_ATTRIBUTE));
    expect(boundedAttribute('call_1 {odd}')).toBe('call_1 {odd}');
  });

  it('leaves values that are not strings alone', () => {
    const list = ['stop'];
    expect(boundedAttribute(42)).toBe(42);
    expect(boundedAttribute(list)).toBe(list);
    expect(boundedAttribute(undefined)).toBeUndefined();
  });
});
