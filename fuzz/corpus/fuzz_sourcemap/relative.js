y();
//@ sourceMappingURL=../maps/./y.js.map?v=1
