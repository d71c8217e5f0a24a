// A part of the mutation harness (tests/mutation/defect-runs.ts): which defects it runs follows from its place
// among the part files, so every part file reads the same.
import { describeDefectRuns } from './defect-runs.js';

describeDefectRuns(import.meta.url);
