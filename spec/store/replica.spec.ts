import { hostname } from 'node:os';
import { replicaOf } from '../../lib/store/replica';

describe('replicaOf', () => {
  it('is the replicaName option, else host:pid', () => {
    expect(replicaOf('gateway-a')).toBe('gateway-a');
    expect(replicaOf(undefined)).toBe(`${hostname()}:${process.pid}`);
  });
});
