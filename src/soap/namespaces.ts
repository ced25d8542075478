/** Namespace URIs used by the SOAP 1.2 endpoint. */
export const SOAP12_ENV_NS = 'http://www.w3.org/2003/05/soap-envelope';
export const SOAP11_ENV_NS = 'http://schemas.xmlsoap.org/soap/envelope/';
/** ServiceStack's default WsdlServiceNamespace: DTOs and the WSDL target namespace. */
export const SERVICESTACK_TYPES_NS = 'http://schemas.servicestack.net/types';
/** WS-Addressing (SOAP 1.2 WSAddressingAugust2004, as ServiceStack parses, and the 1.0 W3C namespace). */
export const WSA_NAMESPACES: ReadonlySet<string> = new Set([
  'http://schemas.xmlsoap.org/ws/2004/08/addressing',
  'http://www.w3.org/2005/08/addressing',
]);
