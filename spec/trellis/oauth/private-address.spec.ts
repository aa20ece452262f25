import { isPrivateAddress } from '../../../lib/trellis/oauth/private-address';

describe('isPrivateAddress', () => {
  it.each([
    ['127.0.0.1', true],
    ['10.200.0.1', true],
    ['172.16.0.1', true],
    ['172.31.255.255', true],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['0.0.0.0', true],
    ['::1', true],
    ['[::1]', true],
    ['::', true],
    ['fd12::1', true],
    ['fe80::1', true],
    ['::ffff:10.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['not-an-ip', true],
    ['172.32.0.1', false],
    ['8.8.8.8', false],
    ['203.0.113.7', false],
    ['2001:db8::1', false],
    ['::ffff:808:808', false],
  ])('%s: %s', (address, expected) => expect(isPrivateAddress(address)).toBe(expected));
});
