/**
 * Request DTOs as ServiceStack's generated TypeScript DTOs are, for @servicestack/client: each carries its type name
 * and verb; the fields come from generated/.
 */
import type { IReturn } from '@servicestack/client';
import type * as Dto from '../../src/contract/dtos.ts';

abstract class RequestDto<TRequest extends object, TResponse> implements IReturn<TResponse> {
  constructor(
    init: TRequest,
    private readonly method: 'GET' | 'POST' = 'POST',
  ) {
    Object.assign(this, init);
  }
  abstract getTypeName(): string;
  getMethod() {
    return this.method;
  }
  createResponse(): TResponse {
    return {} as TResponse;
  }
}

export class EchoRequest extends RequestDto<Dto.EchoRequest, Dto.EchoResponse> {
  getTypeName() {
    return 'EchoRequest';
  }
}

export class GetFlatRequest extends RequestDto<Dto.GetFlatRequest, Dto.GetFlatResponse> {
  getTypeName() {
    return 'GetFlatRequest';
  }
}
