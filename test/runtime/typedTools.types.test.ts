// registerTool types a handler from the tool's schemas or validators: typedTools.fixture.ts, compiled
// here under the project's strict options, has no error but those its `@ts-expect-error` lines
// expect (an expected error that does not come is an error too).

import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { expect, it } from 'vitest';

it('types each handler by its schemas or validators, and refuses what they do not allow', () => {
  const fixture = fileURLToPath(new URL('./typedTools.fixture.ts', import.meta.url));
  const config = ts.getParsedCommandLineOfConfigFile(fileURLToPath(new URL('../../tsconfig.json', import.meta.url)), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!;
  const program = ts.createProgram([fixture], { ...config.options, noEmit: true });
  const problems = ts
    .getPreEmitDiagnostics(program)
    .filter((diagnostic) => diagnostic.file?.fileName === fixture || diagnostic.file === undefined)
    .map((diagnostic) => `${diagnostic.file ? `line ${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start!).line + 1}: ` : ''}${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`);
  expect(problems).toEqual([]);
}, 60_000);
