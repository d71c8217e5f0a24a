// Part 1 of the mutation harness (tests/mutation/defect-runs.ts): every third defect of the catalog, from the first.
import { describeDefectRuns } from './defect-runs.js';

describeDefectRuns(1, 3);
