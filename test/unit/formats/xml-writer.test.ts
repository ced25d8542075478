/**
 * The DataContract XML writer (src/formats/xml.ts) against what DataContractSerializer wrote: a ServiceStack 4.5.14
 * C# client's SendAll body (recorded byte for byte; test/wire/http/batched-requests.test.ts posts it) and the nil
 * members the 4.5.14 host wrote.
 */
import { expect } from 'chai';
import { toDataContractXml, toDataContractXmlList } from '../../../src/formats/xml.ts';

const DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';
const ROOT_NS = 'xmlns:i="http://www.w3.org/2001/XMLSchema-instance" xmlns="http://schemas.servicestack.net/types"';
const ARRAYS = 'http://schemas.microsoft.com/2003/10/Serialization/Arrays';

describe('DataContract XML writer (src/formats/xml.ts)', () => {
  it('writes a GetFlatRequest list as the C# client did, its nil Filters declaring the arrays prefix', () => {
    // The client's body, after its BOM: <ArrayOfGetFlatRequest …><GetFlatRequest><CompanyId>1</CompanyId>…<Filters
    // xmlns:d3p1="…/Arrays" i:nil="true" />…; its ` />` is `/>` here (README, deviations: XML empty elements).
    const xml = toDataContractXmlList('GetFlatRequest', [
      {
        CompanyId: 1,
        EndDate: '/Date(1709164800000)/',
        Filters: null,
        IncludeComputedColumns: false,
        Locations: [10, 20],
        StartDate: '/Date(1704067200000)/',
        UseAccountMapping: false,
        UseCustomDateRange: true,
      },
    ]);
    expect(xml).to.equal(
      `${DECLARATION}<ArrayOfGetFlatRequest ${ROOT_NS}><GetFlatRequest><CompanyId>1</CompanyId><EndDate>` +
        `2024-02-29T00:00:00Z</EndDate><Filters xmlns:d3p1="${ARRAYS}" i:nil="true"/>` +
        `<IncludeComputedColumns>false</IncludeComputedColumns><Locations xmlns:d3p1="${ARRAYS}"><d3p1:int>10` +
        `</d3p1:int><d3p1:int>20</d3p1:int></Locations><OrderBy i:nil="true"/><StartDate>2024-01-01T00:00:00Z` +
        `</StartDate><UseAccountMapping>false</UseAccountMapping><UseCustomDateRange>true</UseCustomDateRange>` +
        `</GetFlatRequest></ArrayOfGetFlatRequest>`,
    );
  });

  it('a nil list declares the prefix of its own depth; a nil string or list of DTOs declares none', () => {
    // As the 4.5.14 host wrote ResponseStatus's nil Meta (a Dictionary, in the arrays namespace) in a batch:
    // <Meta xmlns:d4p1="…/Arrays" i:nil="true" />, and <Errors i:nil="true" /> (a list of ResponseError DTOs).
    const report = toDataContractXml('GetFlatResponse', {
      ReportModel: { ColumnNames: null, Rows: [{ Values: null }] },
      SelectedOptions: { Locations: null },
    });
    expect(report).to.include(`<ColumnNames xmlns:d3p1="${ARRAYS}" i:nil="true"/>`);
    expect(report).to.include(`<Values xmlns:d5p1="${ARRAYS}" i:nil="true"/>`);
    expect(report).to.include(`<Locations xmlns:d3p1="${ARRAYS}" i:nil="true"/>`);
    expect(report).to.include('<ReportHeader i:nil="true"/>');
    expect(report).to.include('<Url i:nil="true"/>');
    const error = toDataContractXml('ErrorResponse', { ResponseStatus: { ErrorCode: 'E' } });
    expect(error).to.include('<ResponseStatus><ErrorCode>E</ErrorCode><Message i:nil="true"/>');
    expect(error).to.include('<Errors i:nil="true"/></ResponseStatus>');
  });
});
