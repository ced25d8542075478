/**
 * `/soap11`, beside `/soap12`, as a real ServiceStack 4.5.14 host served it: GET (any query, `?wsdl` too) answers the
 * SOAP 1.1 WSDL, which is the SOAP 1.2 one with ServiceStack's SOAP 1.1 names: `name="Soap11"`,
 * `BasicHttpBinding_ISyncReply`, the `soap:` (WSDL SOAP 1.1) binding, operation, body and address elements, and the
 * address `<base>/soap11`. The contract declares no operation, so every message POSTed there is answered with a
 * SOAP 1.1 fault (`text/xml`): NotImplementedException for a SOAP 1.1 envelope, VersionMismatch for anything else.
 */
import type { RequestHandler } from 'express';
import { appError, toAppError } from '../errors/app-error.ts';
import { parseContentType } from '../http/content-type.ts';
import { discardRest } from '../http/discard-rest.ts';
import { assertXmlRequest, readBodyText } from './body.ts';
import { parseEnvelope } from './envelope.ts';
import { renderFault } from './fault.ts';
import { soapAddressFor, type WsdlDocument } from './wsdl.ts';
import { WSDL_CONTENT_TYPE } from './soap12-handler.ts';

export const SOAP11_PATH = '/soap11';

/** The SOAP 1.1 WSDL from the SOAP 1.2 one (both ServiceStack templates differ only in these names). */
export function soap11Wsdl(soap12Wsdl: string): string {
  return soap12Wsdl
    .replace('<wsdl:definitions name="Soap12"', '<wsdl:definitions name="Soap11"')
    .replace(/WSHttpBinding_/g, 'BasicHttpBinding_')
    .replace(/<soap12:(binding|operation|body|address)\b/g, '<soap:$1');
}

export function soap11Handler({
  wsdl,
  bodyLimitBytes,
  mountPath,
}: {
  wsdl: WsdlDocument;
  bodyLimitBytes: number;
  mountPath: string;
}): RequestHandler {
  return async (req, res, next) => {
    try {
      if (req.method === 'GET' || req.method === 'HEAD') {
        res
          .status(200)
          .set('Content-Type', WSDL_CONTENT_TYPE)
          .send(soap11Wsdl(wsdl.withAddress(soapAddressFor(req, mountPath))));
        return;
      }
      const contentType = parseContentType(req.headers['content-type']);
      assertXmlRequest(req, contentType);
      const envelope = parseEnvelope(await readBodyText(req, bodyLimitBytes, contentType.charset));
      const error = envelope.version === 'soap11' ? appError('Soap11NoOperation') : appError('NotSoap11Envelope');
      const fault = renderFault(error, { envelope: 'soap11' });
      res.status(fault.status).set('Content-Type', fault.contentType).send(fault.body);
    } catch (thrown) {
      const error = toAppError(thrown);
      if (error.code === 'RequestEntityTooLarge' || error.code === 'UnsupportedMediaType') {
        res.set('Connection', 'close');
        discardRest(req);
      }
      if (res.headersSent) return next(thrown);
      const fault = renderFault(error, { envelope: 'soap11' });
      res.status(fault.status).set('Content-Type', fault.contentType).send(fault.body);
    }
  };
}
