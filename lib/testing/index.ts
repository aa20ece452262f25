export { scriptedModel, type ScriptedModel } from './scripted-model';
export type { ScriptEntry, ScriptedRequest } from './script';
export type { ScriptedTurn } from './wire';
export { localTrellis, type LocalTool } from '../trellis/local';
