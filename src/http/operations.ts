/** The contract's operations as (method, path template, plan), read from openapi/. */
import type { OpenAPIV3 } from 'express-openapi-validator/dist/framework/types.js';
import { operationPlan, type OperationPlan } from '../contract/binding-plan.ts';
import type { RouteTemplate } from '../contract/routes.ts';

export interface ContractOperation extends OperationPlan {
  method: string;
  template: string;
  /** The template in Express syntax, `/v1/echo/:Message`. */
  expressPath: string;
}

export function contractOperations(doc: OpenAPIV3.DocumentV3, routes: RouteTemplate[]): ContractOperation[] {
  return routes.flatMap((route) =>
    [...route.methods].map((method) => ({
      ...operationPlan(doc, route.template, method),
      method,
      template: route.template,
      expressPath: route.template.replace(/\{(\w+)\}/g, ':$1'),
    })),
  );
}
