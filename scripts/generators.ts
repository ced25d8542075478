import { openapiTypes } from './generate-openapi-types.ts';
import { xsdTypes } from './generate-xsd-types.ts';

export interface Generator {
  /** Path under generated/. */
  output: string;
  render(root: string): Promise<string>;
}

export const generators: Generator[] = [openapiTypes, xsdTypes];
