// A vitest reporter for scripts/test.mjs: it keeps what vitest's JSON report loses — why a suite
// failed outside its tests (a beforeAll or afterAll that threw: a daemon that did not start in time)
// and which tests did not run because of it. The JSON report lists those tests as skipped, with no
// reason, and the suite's error nowhere; test.mjs counts them as failed and prints the error near
// its closing line, where a CI log's tail keeps it. One JSON line per failed suite, appended to the
// file named by AICC_SUITE_ERRORS (nothing is written without it).
import { appendFileSync } from 'node:fs';

export default class SuiteErrors {
  onTestSuiteResult(suite) {
    const file = process.env.AICC_SUITE_ERRORS;
    const errors = suite.errors();
    if (file === undefined || errors.length === 0) return;
    const notRun = [...suite.children.allTests()].filter((test) => test.result().state !== 'passed' && test.result().state !== 'failed');
    const line = {
      file: suite.module.moduleId,
      suite: suite.fullName,
      errors: errors.map((error) =>
        String(error.message ?? error)
          .split('\n')[0]
          .slice(0, 300),
      ),
      notRun: notRun.map((test) => test.fullName),
    };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  }
}
