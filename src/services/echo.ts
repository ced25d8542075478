import type { EchoRequest, EchoResponse } from '../contract/dtos.ts';
import type { Caller } from '../auth/caller.ts';

/** Echo: the message back, with the caller's company name and an empty status block. */
export function echo(request: EchoRequest, caller: Caller): EchoResponse {
  return { Message: request.Message, CompanyName: caller.companyName, ResponseStatus: {} };
}
