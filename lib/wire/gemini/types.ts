/** Gemini generateContent shapes as the loop reads them: every field it does not name is kept as it came. */

export interface FunctionCall {
  name: string;
  /** an object (the real API refuses a string) */
  args?: Record<string, unknown>;
  /** Gemini 2.5 and 3 send none */
  id?: string;
  [key: string]: unknown;
}

/** One part of a content: text (`thought: true` for a thought summary), a function call or response, data, ... */
export interface Part {
  text?: string;
  thought?: boolean;
  /** the model's signature of its reasoning: it goes back exactly as it came, on the part it came on */
  thoughtSignature?: string;
  functionCall?: FunctionCall;
  functionResponse?: { name: string; id?: string; response: Record<string, unknown>; [key: string]: unknown };
  [key: string]: unknown;
}

export interface Content {
  role?: string;
  parts: Part[];
  [key: string]: unknown;
}

export interface UsageMetadata {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  totalTokenCount?: number;
  thoughtsTokenCount?: number;
  cachedContentTokenCount?: number;
  toolUsePromptTokenCount?: number;
  [key: string]: unknown;
}

export interface Candidate {
  content?: Content;
  finishReason?: string;
  index?: number;
  [key: string]: unknown;
}

/** One GenerateContentResponse: a JSON reply whole, or one chunk of a stream. */
export interface GenerateContentResponse {
  candidates?: Candidate[];
  usageMetadata?: UsageMetadata;
  modelVersion?: string;
  responseId?: string;
  [key: string]: unknown;
}

/** A function call part, whose call the loop reads. */
export const isCall = (part: Part): part is Part & { functionCall: FunctionCall } =>
  typeof part.functionCall === 'object' && part.functionCall !== null;
