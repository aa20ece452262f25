import type { WireRequest } from '../../loop/wire';

/** The model most wires ask for: the body's `model`. */
export const modelInBody = (body: WireRequest): unknown => body.model;
