export { agentLoop, type AgentLoopMiddleware } from './middleware';
export { isInternalRequest, skipWhenInternal } from './internal';
export { AgentLoopError } from './errors';
export type { AgentLoopOptions, Settings } from './options';
export type * from './types';
export { localTrellis, type LocalTool } from './trellis/local';
