/**
 * The WSDL the server serves, loaded from the contract files (the sources) and from the inlined copy the production
 * build writes beside them (src/soap/wsdl.ts, scripts/build.mjs): the same document either way.
 */
import { expect } from 'chai';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { INLINED_FILE, WSDL_DIR, inlineWsdl, loadWsdl } from '../../src/soap/wsdl.ts';

describe('WSDL loading: from the contract files and from the build\'s inlined copy', () => {
  let built: string;
  before(async () => {
    built = mkdtempSync(path.join(tmpdir(), 'rs-wsdl-'));
    cpSync(WSDL_DIR, built, { recursive: true });
    writeFileSync(path.join(built, INLINED_FILE), await inlineWsdl(built));
  });
  after(() => rmSync(built, { recursive: true, force: true }));

  it('When the inlined copy is present, then the document and its per-request address are those of the files', async () => {
    const fromFiles = await loadWsdl();
    const fromBuild = await loadWsdl(built);
    expect(fromBuild.xml).to.equal(fromFiles.xml);
    expect(fromBuild.xml).to.include('<xs:schema').and.not.include('schemaLocation=');
    expect(fromBuild.withAddress('https://reports.example/soap12')).to.equal(fromFiles.withAddress('https://reports.example/soap12'));
    expect(fromBuild.withAddress('https://reports.example/soap12')).to.include('location="https://reports.example/soap12"');
  });

  it('When the inlined copy has lost its address placeholder, then loading fails naming it', async () => {
    writeFileSync(path.join(built, INLINED_FILE), (await inlineWsdl(built)).replace('location="http://localhost/soap12"', 'location="x"'));
    let error: unknown;
    await loadWsdl(built).catch((e: unknown) => (error = e));
    expect(String(error)).to.match(/address placeholder not found once/);
  });
});
