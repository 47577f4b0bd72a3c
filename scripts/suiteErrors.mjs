// A vitest reporter for scripts/test.mjs: it keeps what vitest's JSON report loses — why a suite or
// a file failed outside its tests (a beforeAll or afterAll that threw: a daemon that did not start
// in time) and which tests did not run because of it. The JSON report lists those tests as skipped,
// with no reason, and the error nowhere; test.mjs counts them as failed and prints the error near
// its closing line, where a CI log's tail keeps it. One JSON line per failed suite or file, appended
// to the file named by AICC_SUITE_ERRORS (nothing is written without it).
import { appendFileSync } from 'node:fs';

/** Writes what failed outside the tests of `entity` (a suite or a whole file), if anything did. */
function record(entity, file, name) {
  const out = process.env.AICC_SUITE_ERRORS;
  const errors = entity.errors();
  if (out === undefined || errors.length === 0) return;
  const notRun = [...entity.children.allTests()].filter((test) => !['passed', 'failed'].includes(test.result().state));
  const line = {
    file,
    suite: name,
    errors: errors.map((error) =>
      String(error.message ?? error)
        .split('\n')[0]
        .slice(0, 300),
    ),
    notRun: notRun.map((test) => test.fullName),
  };
  appendFileSync(out, `${JSON.stringify(line)}\n`);
}

export default class SuiteErrors {
  onTestSuiteResult(suite) {
    record(suite, suite.module.moduleId, suite.fullName);
  }

  /** A file's own errors: its top-level hooks, or a file that cannot load. */
  onTestModuleEnd(module) {
    record(module, module.moduleId, '(the file: its top-level hooks or loading)');
  }
}
