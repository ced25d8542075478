/**
 * The WSDL the server serves, loaded from the contract files (src/soap/wsdl.ts): self-contained, and a broken copy of
 * the files fails loading with a sentence naming what is wrong.
 */
import { expect } from 'chai';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WSDL_DIR, WSDL_FILE, loadWsdl } from '../../../src/soap/wsdl.ts';

describe('WSDL loading from the contract files', () => {
  let copy: string;
  beforeEach(() => {
    copy = mkdtempSync(path.join(tmpdir(), 'rs-wsdl-'));
    cpSync(WSDL_DIR, copy, { recursive: true });
  });
  afterEach(() => rmSync(copy, { recursive: true, force: true }));

  it('When the files are loaded, then the schemas are inlined and the address is set per request', async () => {
    const wsdl = await loadWsdl();
    expect(wsdl.xml).to.include('<xs:schema').and.not.include('schemaLocation=');
    expect(wsdl.withAddress('https://reports.example/soap12')).to.include('location="https://reports.example/soap12"');
    expect(wsdl.withAddress('https://reports.example/soap12')).to.not.include('http://localhost/soap12');
  });

  it('When the WSDL file has lost its address placeholder, then loading fails naming it', async () => {
    const file = path.join(copy, WSDL_FILE);
    writeFileSync(file, readFileSync(file, 'utf8').replace('location="http://localhost/soap12"', 'location="x"'));
    let error: unknown;
    await loadWsdl(copy).catch((e: unknown) => (error = e));
    expect(String(error)).to.match(/address placeholder not found once/);
  });
});
