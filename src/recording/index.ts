// aicc-capsule/recording: write a run's AICC traffic as NDJSON, check a recording, replay it.

export { Recorder } from './recorder.js';
export { RECORDING_FORMAT, RecordingError, decisionProblem, entryProblem, formatLine, headerProblem, parseRecording } from './recording.js';
export { replay } from './replay.js';
export { exchangeProblem, hashProblem } from './cassetteLines.js';

export type { Recording, RecordingEnd, RecordingEntry, RecordingHeader, RecordedDecision, RecordedDecisionCost } from './recording.js';
export type { Mismatch, ReplayReport, ReplayWorld, WorldBuilder } from './replay.js';
export type { RecordedExchange, RecordedHash } from './cassetteLines.js';
