/**
 * The rules derived from wsdl/: the WSDL is served and names the service, port type and binding of our file, with no
 * operations (`wsdl:served`); a POSTed SOAP 1.2 message gets a SOAP 1.2 fault (`soap:fault`).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { check, type ConformanceRule } from './rule.ts';
import { WSDL_REQUESTS } from './requests.ts';

const WSDL_PATH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../wsdl/SyncReply.wsdl');

export function wsdlRules(): ConformanceRule[] {
  const wsdl = readFileSync(WSDL_PATH, 'utf8');
  const names = {
    service: /<wsdl:service name="([^"]+)"/.exec(wsdl)?.[1],
    portType: /<wsdl:portType name="([^"]+)"/.exec(wsdl)?.[1],
    binding: /<wsdl:binding name="([^"]+)"/.exec(wsdl)?.[1],
  };
  return [
    {
      name: 'wsdl:served',
      description:
        `GET /soap12?wsdl serves the WSDL naming ${names.service}, ${names.portType}, ${names.binding} with no ` +
        `operations`,
      async run({ send }) {
        const res = await send(WSDL_REQUESTS['wsdl:served']);
        check(res.status === 200, `status ${res.status}, expected 200`);
        check(/xml/.test(res.contentType), `Content-Type '${res.contentType}', expected text/xml`);
        for (const [what, name] of Object.entries(names)) {
          check(name && new RegExp(`<wsdl:${what} name="${name}"`).test(res.text), `no wsdl:${what} named ${name}`);
        }
        check(!/<wsdl:operation\b/.test(res.text), 'the WSDL lists operations');
      },
    },
    {
      name: 'soap:fault',
      description: 'POST /soap12 with a SOAP 1.2 message answers a SOAP 1.2 Fault (application/soap+xml)',
      async run({ send }) {
        const res = await send(WSDL_REQUESTS['soap:fault']);
        check(
          res.contentType.startsWith('application/soap+xml'),
          `Content-Type '${res.contentType}', expected application/soap+xml`,
        );
        check(
          /<(\w+:)?Fault\b/.test(res.text) && /http:\/\/www\.w3\.org\/2003\/05\/soap-envelope/.test(res.text),
          'no SOAP 1.2 Fault in the body',
        );
      },
    },
  ];
}
