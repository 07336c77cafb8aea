// ATKit: speaks AT (3GPP TS 27.007 / ITU-T V.250) to one modem port.
//
// Layers, each depending only on the ones above it in this list:
//
//   Transport/       bytes in, bytes out: `ATTransport`, `SerialPortTransport`, `TracingTransport`
//   Framing/         bytes → lines and bare prompts: `ATLineFramer`, `ATLine`, `ATPrompt`
//   Classification/  line + in-flight expectation → final / information / URC / echo / prompt:
//                    `ATLineClassifier`, `ATFinalResult`, `ATURCTable`
//   Session/         one command in flight, FIFO queue, timeouts, URC stream: `ATSession`
//   Commands/        typed commands by 3GPP TS 27.007 chapter (`ATCommand`, `ATSession.send(_:)`)
//   Dialects/        vendor dialects as data plus hooks: `ModemDialect`
//   Probe/           baud search, identification, `ModemProbe` -> `ModemProbeReport`
//   BringUp/         APN, RAT/bands, PSM/eDRX, registration wait: `ModemBringUp`, `ModemEventHub`
//
// Framing and classification are pure, synchronous value types so they can be tested byte by byte
// against real transcripts. Only the session owns time (an injected `Clock`) and I/O.
