/** The generators `npm run generate` runs, in order (scripts/generate.ts). */
import { openapiTypes } from './generate-openapi-types.ts';
import { xsdTypes } from './generate-xsd-types.ts';
import { nativeTypes } from './generate-native-types.ts';
import { clientContractGenerator } from './generate-client-contract.ts';
import type { Generator } from './generator.ts';

export const generators: Generator[] = [openapiTypes, xsdTypes, nativeTypes, clientContractGenerator];
