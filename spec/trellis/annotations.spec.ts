import { effectiveAnnotations } from '../../lib/trellis/annotations';

describe('effectiveAnnotations', () => {
  it('reads a tool that says nothing as MCP does: not read-only, destructive, not idempotent, open-world', () => {
    const defaults = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };
    expect(effectiveAnnotations()).toEqual(defaults);
    expect(effectiveAnnotations({})).toEqual(defaults);
  });

  it('takes a read-only tool for not destructive, whatever destructiveHint says', () => {
    expect(effectiveAnnotations({ readOnlyHint: true, destructiveHint: true })).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    });
  });

  it('keeps what the tool says, and its other annotations', () => {
    expect(
      effectiveAnnotations({
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
        title: 'Insert a row',
        'x-costly': true,
      }),
    ).toEqual({
      title: 'Insert a row',
      'x-costly': true,
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
  });

  it('takes only true for true and only false for false: anything else reads as the default', () => {
    const odd = { readOnlyHint: 'yes', destructiveHint: 0, idempotentHint: 1, openWorldHint: null } as never;
    expect(effectiveAnnotations(odd)).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    });
  });
});
