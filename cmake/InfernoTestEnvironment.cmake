# Read by ctest before it runs any test (TEST_INCLUDE_FILES of the top directory): the environment
# every test inherits. No test compile may read or fill the user's build cache
# ($HOME/.cache/infernoc); the cache's own tests name a scratch --cache-dir, which overrides this.
set(ENV{INFERNO_NO_CACHE} 1)
