/**
 * The Express handler in front of node-soap on /soap12: GET/HEAD serve the WSDL, every other method is treated as a
 * SOAP message (as ServiceStack's Soap12 handler did) and answered with a SOAP fault, because the SyncReply portType
 * declares no operation.
 */
import type { Request, Response, NextFunction, RequestHandler } from 'express';
import { appError, type AppError, toAppError } from '../errors/app-error.ts';
import { parseContentType } from '../http/content-type.ts';
import { discardRest } from '../http/discard-rest.ts';
import { assertXmlRequest, readBodyText } from './body.ts';
import { parseEnvelope } from './envelope.ts';
import { renderFault, type FaultOptions } from './fault.ts';
import { soapAddressFor, type WsdlDocument } from './wsdl.ts';

export const WSDL_CONTENT_TYPE = 'text/xml; charset=utf-8';
/** Longest operation name reflected in a fault message. */
const MAX_OPERATION_CHARS = 200;

export interface Soap12HandlerOptions {
  wsdl: WsdlDocument;
  bodyLimitBytes: number;
  mountPath: string;
}

export function sendFault(res: Response, error: AppError, options: FaultOptions = {}): void {
  if (res.headersSent) return; // answered already (the request's time-out, as a fault too)
  const fault = renderFault(error, options);
  res.status(fault.status).set('Content-Type', fault.contentType).send(fault.body);
}

function lastSegment(action: string): string {
  const trimmed = action.trim().replace(/\/+$/, '');
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

function operationNotFound(name: string): AppError {
  const shown = name.length > MAX_OPERATION_CHARS ? `${name.slice(0, MAX_OPERATION_CHARS)}…` : name;
  return appError('OperationNotFound', { name: shown });
}

/** Decides the fault for a message, from the strongest evidence first (as ServiceStack resolved the operation). */
export async function faultForMessage(
  req: Request,
  bodyLimitBytes: number,
): Promise<{ error: AppError; options: FaultOptions }> {
  const contentType = parseContentType(req.headers['content-type']);
  assertXmlRequest(req, contentType);
  const text = await readBodyText(req, bodyLimitBytes, contentType.charset);
  const envelope = parseEnvelope(text);

  if (envelope.version === 'soap11') {
    return {
      error: appError('Soap11Unsupported'),
      options: { envelope: 'soap11' },
    };
  }
  if (envelope.version === 'unknown') {
    return {
      error: appError('NotSoap12Envelope'),
      options: {},
    };
  }
  if (!envelope.hasBody) {
    return { error: appError('EnvelopeWithoutBody'), options: {} };
  }
  const operation =
    (contentType.action && lastSegment(contentType.action)) ||
    (envelope.wsaAction && lastSegment(envelope.wsaAction)) ||
    envelope.operation;
  if (!operation) {
    return { error: appError('SoapBodyEmpty'), options: {} };
  }
  return { error: operationNotFound(operation), options: {} };
}

export function soap12Handler({ wsdl, bodyLimitBytes, mountPath }: Soap12HandlerOptions): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      if (req.method === 'GET' || req.method === 'HEAD') {
        // Query parameters are ignored, as ServiceStack did: /soap12, /soap12?wsdl, /soap12?WSDL all give the WSDL.
        res
          .status(200)
          .set('Content-Type', WSDL_CONTENT_TYPE)
          .send(wsdl.withAddress(soapAddressFor(req, mountPath)));
        return;
      }
      const { error, options } = await faultForMessage(req, bodyLimitBytes);
      sendFault(res, error, options);
    } catch (thrown) {
      const error = toAppError(thrown);
      if (error.code === 'RequestEntityTooLarge' || error.code === 'UnsupportedMediaType') {
        res.set('Connection', 'close');
        discardRest(req);
      }
      if (res.headersSent) {
        next(thrown);
        return;
      }
      sendFault(res, error);
    }
  };
}
