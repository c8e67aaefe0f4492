/** An event whose type is unknown (strict mode), whose envelope is malformed, or whose payload fails its schema. */
export class EventValidationError extends Error {
  constructor(
    readonly eventType: string,
    readonly problems: readonly string[],
  ) {
    super(`invalid ${eventType} event: ${problems.join('; ')}`);
    this.name = 'EventValidationError';
  }
}

/** The dispatch queue is full; the event was not enqueued (catalog §3.5). */
export class EventBusOverflowError extends Error {
  constructor(
    readonly maxQueue: number,
    readonly eventType: string,
  ) {
    super(`event bus queue is full (${maxQueue} events waiting); rejected ${eventType}`);
    this.name = 'EventBusOverflowError';
  }
}

/** The event catalog or one of its schema files is missing or malformed. */
export class EventCatalogError extends Error {
  constructor(
    readonly file: string,
    problem: string,
  ) {
    super(`${file}: ${problem}`);
    this.name = 'EventCatalogError';
  }
}
