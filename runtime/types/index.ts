export * from './content.ts';
export * from './request.ts';
export * from './response.ts';
