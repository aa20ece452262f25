export { scriptedModel, type ScriptedModel } from './scripted-model';
export { runCode, type ScriptEntry, type ScriptedRequest } from './script';
export type { ScriptedTurn } from './wire';
export { localTrellis, type LocalTool } from '../trellis/local';
