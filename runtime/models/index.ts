export { UnknownModelError, type ModelProfile, type ModelRegistry, type SimProfile } from './model-profile.ts';
export { createModelRegistry, loadModelRegistry, DEFAULT_MODELS_PATH, type VersionedModelRegistry } from './model-registry.ts';
