/** The worklet module: both processors, bundled into one script that the library loads from a Blob URL. */
import './capture-processor.js'
import './playback-processor.js'
