// A user's application on the module path: it requires the library and nothing else, and opens
// its result type to Jackson, as an application must. Compiled and run by ModulePathTest.
module onceonly.consumer {
  requires dev.onceonly;

  opens onceonly.consumer to
      com.fasterxml.jackson.databind;
}
