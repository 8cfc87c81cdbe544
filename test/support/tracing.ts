import { Tracer } from "effect"

/** A tracing backend that keeps every span it is asked for, in order. */
export const makeRecorder = () => {
  const spans: Array<Tracer.NativeSpan> = []
  const tracer = Tracer.make({
    span(options) {
      const span = new Tracer.NativeSpan(options)
      spans.push(span)
      return span
    }
  })
  return { spans, tracer }
}
