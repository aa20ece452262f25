import type { Wire } from './wire';

/**
 * Where in `path` the wire's own part begins (its `route`'s match, else its `path` at the end); -1: not this wire's.
 */
export function frontDoorAt(wire: Pick<Wire, 'path' | 'route'>, path: string): number {
  if (wire.route) return wire.route.exec(path)?.index ?? -1;
  return path.endsWith(wire.path) ? path.length - wire.path.length : -1;
}
