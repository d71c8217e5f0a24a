// Part 2 of the mutation harness (tests/mutation/defect-runs.ts): every third defect of the catalog, from the second.
import { describeDefectRuns } from './defect-runs.js';

describeDefectRuns(2, 3);
