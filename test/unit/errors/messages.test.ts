/**
 * The error registry with its message templates (src/errors/messages.ts): every message is answered somewhere, every
 * template fills completely, and no module builds an AppError with a message of its own.
 */
import { expect } from 'chai';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { appError } from '../../../src/errors/app-error.ts';
import { errorMessages, formatMessage, type MessageId, type MessageParams } from '../../../src/errors/messages.ts';
import { errorRegistry } from '../../../src/errors/registry.ts';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../src');
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  );
const sources = files(SRC).map((file) => ({ file: path.relative(SRC, file), text: readFileSync(file, 'utf8') }));
const ids = Object.keys(errorMessages) as MessageId[];

describe('error registry and message templates', () => {
  it(
    'When src/ is read, then every message id is answered by some module, and only src/errors/ constructs ' +
      'AppError itself',
    () => {
      const unused = ids.filter(
        (id) => !sources.some(({ file, text }) => file !== 'errors/messages.ts' && text.includes(`'${id}'`)),
      );
      expect(unused).to.deep.equal([]);
      const direct = sources
        .filter(({ file, text }) => !file.startsWith('errors/') && /new AppError\(/.test(text))
        .map(({ file }) => file);
      expect(direct).to.deep.equal([]);
    },
  );

  it(
    'When a template is filled with its parameters, then no placeholder is left and the error carries the code, ' +
      'status and fault of the registry',
    () => {
      for (const id of ids) {
        const { code, template } = errorMessages[id];
        const params = Object.fromEntries(
          [...template.matchAll(/\{(\w+)\}/g)].map((m) => [m[1]!, `<${m[1]}>`]),
        ) as MessageParams<typeof id>;
        const message = formatMessage(id, params);
        expect(message, id).to.not.match(/\{\w+\}/);
        for (const value of Object.values(params)) expect(message, id).to.contain(String(value));
        const error = (appError as (id: MessageId, params: unknown) => ReturnType<typeof appError>)(id, params);
        expect([error.code, error.message, error.status, error.fault], id).to.deep.equal([
          code,
          message,
          errorRegistry[code].status,
          errorRegistry[code].fault,
        ]);
      }
    },
  );
});
