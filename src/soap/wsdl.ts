/**
 * Loads wsdl/SyncReply.wsdl and makes it self-contained as ServiceStack served it: the schemas it imports
 * (wsdl/*.xsd) are inlined in <wsdl:types> with their schemaLocation attributes removed (xs:import then refers to a
 * sibling schema by namespace), and soap12:address location is set per request to `<protocol>://<host>/soap12`.
 * Only our own files are spliced here; the result is checked for well-formedness with a strict parser at load time.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import escapeHtml from 'escape-html';
import type { Request } from 'express';
import { requestBaseUrl } from '../http/base-url.ts';
import { SaxesParser, type SaxesTagNS } from 'saxes';

export const WSDL_DIR = fileURLToPath(new URL('../../wsdl/', import.meta.url));
export const WSDL_FILE = 'SyncReply.wsdl';
/** Address written in the WSDL file; replaced by the request's base URL when served. */
const PLACEHOLDER_ADDRESS = 'http://localhost/soap12';
const XSD_NS = 'http://www.w3.org/2001/XMLSchema';
const WSDL_SOAP12_NS = 'http://schemas.xmlsoap.org/wsdl/soap12/';

export interface WsdlDocument {
  /** The self-contained WSDL with the placeholder address (what node-soap is given). */
  xml: string;
  /** The WSDL with soap12:address location set to `address`. */
  withAddress(address: string): string;
}

interface Scan {
  imports: { namespace: string; schemaLocation: string }[];
  addressCount: number;
}

/** Walks a document with saxes (strict, DOCTYPE refused) and reports what the loader needs. */
function scan(xml: string, source: string): Scan {
  const result: Scan = { imports: [], addressCount: 0 };
  const parser = new SaxesParser({ xmlns: true, position: true });
  parser.on('doctype', () => {
    throw new Error(`${source}: DOCTYPE not allowed`);
  });
  parser.on('opentag', (tag: SaxesTagNS) => {
    if (tag.uri === XSD_NS && tag.local === 'import') {
      const attr = (name: string) => {
        const a = tag.attributes[name];
        return typeof a === 'string' ? a : (a?.value ?? '');
      };
      if (attr('schemaLocation'))
        result.imports.push({ namespace: attr('namespace'), schemaLocation: attr('schemaLocation') });
    }
    if (tag.uri === WSDL_SOAP12_NS && tag.local === 'address') result.addressCount++;
  });
  try {
    parser.write(xml).close();
  } catch (error) {
    throw new Error(`${source} is not well-formed: ${(error as Error).message}`, { cause: error });
  }
  return result;
}

/** Drops the XML declaration and comments of one of our own files, so it can be embedded. */
function embeddable(xml: string): string {
  return xml
    .replace(/^\uFEFF?<\?xml[^?]*\?>\s*/, '')
    .replace(/<!--[\s\S]*?-->\s*/g, '')
    .trim();
}

export async function loadWsdl(dir: string = WSDL_DIR): Promise<WsdlDocument> {
  return addressable(await inlineWsdl(dir));
}

/** SyncReply.wsdl with its schemas inlined, each file and the result checked with a strict parser. */
export async function inlineWsdl(dir: string = WSDL_DIR): Promise<string> {
  const wsdlSource = await readFile(path.join(dir, WSDL_FILE), 'utf8');
  const { imports, addressCount } = scan(wsdlSource, WSDL_FILE);
  if (addressCount !== 1) throw new Error(`${WSDL_FILE}: expected one soap12:address, found ${addressCount}`);

  const schemas: string[] = [];
  for (const { schemaLocation } of imports) {
    const file = path.join(dir, path.basename(schemaLocation));
    const xsd = await readFile(file, 'utf8');
    scan(xsd, schemaLocation);
    // xs:import of a sibling schema keeps its namespace and loses its file location.
    schemas.push(embeddable(xsd).replace(/(<xs:import\b[^>]*?)\s+schemaLocation="[^"]*"/g, '$1'));
  }

  const typesStart = wsdlSource.indexOf('<wsdl:types>');
  const typesEnd = wsdlSource.indexOf('</wsdl:types>');
  if (typesStart < 0 || typesEnd < typesStart) throw new Error(`${WSDL_FILE}: no <wsdl:types>`);
  const inlined =
    '<?xml version="1.0" encoding="utf-8"?>\n' +
    embeddable(wsdlSource.slice(0, typesStart)) +
    '\n\n\t<wsdl:types>\n\t\t' +
    schemas.join('\n\t\t') +
    '\n\t' +
    wsdlSource.slice(typesEnd).trim() +
    '\n';

  const check = scan(inlined, 'inlined WSDL');
  if (check.imports.length) throw new Error('inlined WSDL still has schemaLocation imports');
  return inlined;
}

function addressable(inlined: string): WsdlDocument {
  const marker = `location="${PLACEHOLDER_ADDRESS}"`;
  const at = inlined.indexOf(marker);
  if (at < 0 || inlined.indexOf(marker, at + 1) >= 0)
    throw new Error(`${WSDL_FILE}: address placeholder not found once`);
  const before = inlined.slice(0, at);
  const after = inlined.slice(at + marker.length);
  return {
    xml: inlined,
    // escape-html writes XML's predefined entities (and `&#39;` for an apostrophe): a valid attribute value.
    withAddress: (address) => `${before}location="${escapeHtml(address)}"${after}`,
  };
}

/** `<protocol>://<host>/soap12` of the request (see requestBaseUrl). */
export function soapAddressFor(req: Request, mountPath = '/soap12'): string {
  return `${requestBaseUrl(req)}${mountPath}`;
}
