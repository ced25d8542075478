import path from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { GENERATED_HEADER, type Generator } from './generator.ts';

export const openapiTypes: Generator = {
  output: 'openapi.ts',
  async render(root) {
    const source = pathToFileURL(path.join(root, 'openapi', 'reporting-service.yaml'));
    const ast = await openapiTS(source, { alphabetize: false, exportType: true });
    return `${GENERATED_HEADER}// Source: openapi/reporting-service.yaml\n\n${astToString(ast)}`;
  },
};
