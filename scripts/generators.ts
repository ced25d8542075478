import { openapiTypes } from './generate-openapi-types.ts';
import { xsdTypes } from './generate-xsd-types.ts';
import { nativeTypes } from './generate-native-types.ts';
import { clientContractGenerator } from './generate-client-contract.ts';

export interface Generator {
  /** Path under generated/. */
  output: string;
  render(root: string): Promise<string>;
}

export const generators: Generator[] = [openapiTypes, xsdTypes, nativeTypes, clientContractGenerator];
