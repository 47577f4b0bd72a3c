// registerTool and defineTool type a handler from the tool's schemas or validators: each fixture,
// compiled here under the project's strict options, has no error but those its `@ts-expect-error`
// lines expect (an expected error that does not come is an error too). typedTools.fixture.ts pins
// the runtime's typing; typedTools.adapters.fixture.ts, the adapters' tools typed by their schemas.

import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { expect, it } from 'vitest';

function problemsIn(name: string): string[] {
  const fixture = fileURLToPath(new URL(`./${name}`, import.meta.url));
  const config = ts.getParsedCommandLineOfConfigFile(
    fileURLToPath(new URL('../../tsconfig.json', import.meta.url)),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  )!;
  const program = ts.createProgram([fixture], { ...config.options, noEmit: true });
  return ts
    .getPreEmitDiagnostics(program)
    .filter((diagnostic) => diagnostic.file?.fileName === fixture || diagnostic.file === undefined)
    .map(
      (diagnostic) =>
        `${diagnostic.file ? `line ${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start!).line + 1}: ` : ''}${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`,
    );
}

it('types each handler by its schemas or validators, and refuses what they do not allow', () => {
  expect(problemsIn('typedTools.fixture.ts')).toEqual([]);
}, 60_000);

it("types the adapters' tools by their schemas, and derives their exported input types from them", () => {
  expect(problemsIn('typedTools.adapters.fixture.ts')).toEqual([]);
}, 60_000);
