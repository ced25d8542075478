/**
 * The Java schema validator (xsd-schema-validator) compiles our XSDs and validates sample instance documents.
 * It resolves external entities, so it only ever sees our own files (wsdl/ and test/fixtures/xsd/), never
 * request data. Each run costs about half a second: all runs start at once in `before`.
 */
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import * as xsdValidator from 'xsd-schema-validator';

const file = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));
const TYPES_XSD = file('../../../wsdl/types.xsd');
const SAMPLES_XSD = file('../../fixtures/xsd/serialization-samples.xsd');

interface Outcome {
  valid: boolean;
  messages: string[];
}

async function validate(fixture: string, schema: string): Promise<Outcome> {
  try {
    const result = await xsdValidator.validateXML({ file: file(`../../fixtures/xsd/${fixture}`) }, schema);
    return { valid: result.valid, messages: result.messages };
  } catch (error) {
    const e = error as Error & { valid?: boolean; messages?: string[] };
    if (e.valid === false) return { valid: false, messages: e.messages ?? [] };
    throw error;
  }
}

/** Line numbers the validator reported errors on (messages end with "(line:column)"; chunks may hold several). */
function errorLines(messages: string[]): Set<number> {
  return new Set([...messages.join('\n').matchAll(/\((\d+):\d+\)/g)].map((m) => Number(m[1])));
}

describe('contract: XSDs validated by the Java schema validator', function () {
  this.timeout(60_000);
  const outcomes: Record<string, Outcome> = {};

  before(async () => {
    const runs: [string, string, string][] = [
      ['getFlatGood', 'GetFlatResponse-good.xml', TYPES_XSD],
      ['getFlatBad', 'GetFlatResponse-bad.xml', TYPES_XSD],
      ['echoError', 'EchoResponse-error.xml', TYPES_XSD],
      ['serGood', 'serialization-good.xml', SAMPLES_XSD],
      ['serBad', 'serialization-bad.xml', SAMPLES_XSD],
    ];
    const results = await Promise.all(runs.map(([, fixture, schema]) => validate(fixture, schema)));
    runs.forEach(([key], i) => (outcomes[key] = results[i]!));
  });

  it('compiles types.xsd + ms-arrays.xsd and accepts a full GetFlatResponse', () => {
    expect(outcomes.getFlatGood).to.deep.equal({ valid: true, messages: [] });
  });

  it('accepts an EchoResponse carrying a ResponseStatus with Errors', () => {
    expect(outcomes.echoError).to.deep.equal({ valid: true, messages: [] });
  });

  it('rejects a GetFlatResponse with a bad int and members out of DataContract order', () => {
    const outcome = outcomes.getFlatBad!;
    expect(outcome.valid).to.equal(false);
    expect(errorLines(outcome.messages)).to.include(4).and.to.include(8);
  });

  it(
    'compiles ms-serialization.xsd and accepts good guid, duration (incl. the min/max bounds), char and ' +
      'primitives',
    () => {
      expect(outcomes.serGood).to.deep.equal({ valid: true, messages: [] });
    },
  );

  it('rejects every bad guid, duration, char and int (one error line per bad value)', async () => {
    const outcome = outcomes.serBad!;
    expect(outcome.valid).to.equal(false);
    const lines = (await readFile(file('../../fixtures/xsd/serialization-bad.xml'), 'utf8')).split('\n');
    const valueLines = lines.flatMap((line, i) => (line.startsWith('<ser:') ? [i + 1] : []));
    expect(valueLines).to.have.length(12);
    expect([...errorLines(outcome.messages)].sort((a, b) => a - b)).to.deep.equal(valueLines);
    const text = outcome.messages.join('\n');
    expect(text).to.match(/Value 'not-a-guid' is not facet-valid with respect to pattern/);
    // The JSON "N" form is not a ser:guid.
    expect(text).to.match(/Value '0a1b2c3d4e5f60718293a4b5c6d7e8f9' is not facet-valid/);
    expect(text).to.match(/Value 'P1Y' is not facet-valid with respect to pattern/);
    expect(text).to.match(/cvc-maxInclusive-valid: Value 'P10675200D'/);
  });
});
