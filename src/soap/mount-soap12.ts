/**
 * Mounts the SOAP 1.2 endpoint (/soap12) on the composition root's Express app.
 *
 * node-soap is kept as the SOAP stack: it parses and validates the WSDL at start (a broken contract fails the start,
 * see `describe`) and describes the service. It is not trusted with requests (it answers every POST with HTTP 500
 * and malformed faults, and buffers bodies without limit), so our handlers, mounted before anything else can answer
 * /soap12, answer every request there; node-soap's own route behind them is never reached.
 */
import type { Express } from 'express';
import { contextOf, type ErrorEdge } from '../http/request-context.ts';
import { loadWsdl } from './wsdl.ts';
import { sendFault, soap12Handler } from './soap12-handler.ts';
import { SOAP11_PATH, soap11Handler } from './soap11.ts';

export const SOAP12_PATH = '/soap12';

/** The SOAP edge answers every error, a time-out included, as a SOAP fault. */
const soapEdge: ErrorEdge = { writeError: (res, error) => sendFault(res, error) };

export interface MountSoap12Options {
  /** Largest accepted request body in bytes; larger ones get 413 and a SOAP fault. */
  bodyLimitBytes: number;
}

export interface Soap12Mount {
  /**
   * Has node-soap describe the service: settles once it has loaded (with its HTTP client, a sizeable share of the
   * start-up) and parsed the WSDL; rejects if it cannot. Our handlers answer without it, so the composition root may
   * run it once it listens and has warmed up, as long as it does before it reports ready. Idempotent.
   */
  describe(): Promise<void>;
}

export async function mountSoap12(app: Express, options: MountSoap12Options): Promise<Soap12Mount> {
  if (!Number.isSafeInteger(options.bodyLimitBytes) || options.bodyLimitBytes <= 0) {
    throw new Error('mountSoap12: bodyLimitBytes must be a positive integer');
  }
  const wsdl = await loadWsdl();

  app.all(
    SOAP12_PATH,
    (_req, res, next) => {
      contextOf(res).edge = soapEdge;
      next();
    },
    soap12Handler({ wsdl, bodyLimitBytes: options.bodyLimitBytes, mountPath: SOAP12_PATH }),
  );
  // ServiceStack served the same contract over SOAP 1.1 beside it (src/soap/soap11.ts).
  app.all(SOAP11_PATH, soap11Handler({ wsdl, bodyLimitBytes: options.bodyLimitBytes, mountPath: SOAP11_PATH }));

  // Once only, however often it is asked: a second soap.listen would mount node-soap a second time.
  let described: Promise<void> | undefined;
  const describe = () =>
    (described ??= import('soap').then(
      (soap) =>
        new Promise<void>((resolve, reject) => {
          try {
            soap.listen(app, {
              path: SOAP12_PATH,
              services: {},
              xml: wsdl.xml,
              forceSoap12Headers: true,
              suppressStack: true,
              callback: (error: unknown) =>
                error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(),
            });
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        }),
    ));
  return { describe };
}
