// Part 3 of the mutation harness (tests/mutation/defect-runs.ts): every third defect of the catalog, from the third.
import { describeDefectRuns } from './defect-runs.js';

describeDefectRuns(3, 3);
