/** ServiceStack.Text's JSON (src/formats/json.ts): nulls omitted wherever they are, dates with escaped slashes. */
import { expect } from 'chai';
import { toLegacyJson } from '../../../src/formats/json.ts';

describe('legacy JSON writer', () => {
  it('leaves out a null value at any depth, and keeps the text "null" in a string', () => {
    const dto = { A: null, B: 'null', C: { D: null, E: 1 }, F: [{ G: null }] };
    expect(toLegacyJson(dto)).to.equal('{"B":"null","C":{"E":1},"F":[{}]}');
  });

  it('writes a DTO without nulls as JSON.stringify does, a name or value "null" included', () => {
    const dto = { null: 'nullable', Values: [1.5, -0.25], Name: 'Null Co' };
    expect(toLegacyJson(dto)).to.equal(JSON.stringify(dto));
  });

  it('escapes the slashes of a legacy date', () => {
    expect(toLegacyJson({ StartDate: '/Date(1704067200000+0000)/' })).to.equal(
      '{"StartDate":"\\/Date(1704067200000+0000)\\/"}',
    );
  });
});
