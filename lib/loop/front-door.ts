import type { Wire } from './wire';

/** Where in `path` the wire's own part begins (where one of its `routes` matches its end); -1: not this wire's. */
export function frontDoorAt(wire: Pick<Wire, 'routes'>, path: string): number {
  for (const route of wire.routes) {
    const found = route.match(path);
    if (found) return found.at;
  }
  return -1;
}
