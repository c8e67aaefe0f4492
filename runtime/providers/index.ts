export { ProviderError, type Provider, type ProviderCapabilities, type ProviderErrorClass } from './provider.ts';
export * from './sim/index.ts';
