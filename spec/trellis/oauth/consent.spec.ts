import { ConsentRequired, consentNote, needsUser } from '../../../lib/trellis/oauth/consent';

describe('consent', () => {
  const consent = new ConsentRequired('notes', 'https://auth.example.com/authorize?state=s3');

  it('writes the text the client reads, naming the server and holding the link', () => {
    expect(consentNote(consent)).toBe(
      '[agent-loop] notes needs your permission: open https://auth.example.com/authorize?state=s3, then send your message again.',
    );
  });

  it('keeps the link out of its message, which logs and tool errors show', () => {
    expect(consent.message).toBe("notes needs the user's permission");
    expect(consent.url).toBe('https://auth.example.com/authorize?state=s3');
  });

  it('names the tool a call without a user wanted', () => {
    expect(needsUser('whoami').message).toBe("'whoami' needs a signed-in user");
  });
});
